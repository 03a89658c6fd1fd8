package rtbox.control.internal;

import org.osgi.service.component.ComponentContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ServiceScope;
import org.osgi.service.servlet.context.ServletContextHelper;
import org.osgi.service.servlet.whiteboard.HttpWhiteboardConstants;

import rtbox.control.ControlWeb;

/**
 * The control room's servlet context on the Servlet Whiteboard ({@link ControlWeb#CONTEXT_NAME}
 * at {@link ControlWeb#CONTEXT_PATH}), there while the control room runs (it references it). One
 * helper per using bundle (bundle scope): the page bundle's resources come from the page bundle.
 */
@Component(service = ServletContextHelper.class, scope = ServiceScope.BUNDLE, property = {
        HttpWhiteboardConstants.HTTP_WHITEBOARD_CONTEXT_NAME + "=" + ControlWeb.CONTEXT_NAME,
        HttpWhiteboardConstants.HTTP_WHITEBOARD_CONTEXT_PATH + "=" + ControlWeb.CONTEXT_PATH,
        "service.ranking:Integer=10"})
public class ControlContext extends ServletContextHelper {
    @Activate
    public ControlContext(ComponentContext context, @Reference ControlRoom room) {
        super(context.getUsingBundle());
    }
}
